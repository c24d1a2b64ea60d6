from tenacity import retry, stop_after_attempt, stop_after_delay, wait_exponential

@retry(stop=(stop_after_attempt(3) | stop_after_delay(30)), wait=wait_exponential(multiplier=0.5, max=4))
def sync_inventory():
    ...
