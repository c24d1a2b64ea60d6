from tenacity import retry, stop_after_attempt, wait_fixed, wait_random

@retry(stop=stop_after_attempt(3), wait=wait_fixed(1) + wait_random(0, 2))
def upload(blob):
    ...
