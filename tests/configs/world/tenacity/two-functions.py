from tenacity import retry, stop_after_attempt, wait_fixed, wait_exponential

@retry(stop=stop_after_attempt(2), wait=wait_fixed(5))
def slow_sync():
    ...

@retry(stop=stop_after_attempt(4), wait=wait_exponential(multiplier=0.1, max=1))
def fast_ping():
    ...
