from tenacity import retry, stop_after_attempt, wait_incrementing

@retry(stop=stop_after_attempt(5), wait=wait_incrementing(start=1, increment=1, max=3))
def refresh_token():
    ...
