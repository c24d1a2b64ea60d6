from tenacity import retry, stop_after_attempt, wait_incrementing

@retry(reraise=True, stop=stop_after_attempt(4), wait=wait_incrementing(start=1, increment=2))
def charge(card):
    ...
