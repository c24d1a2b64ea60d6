from tenacity import retry, stop_after_attempt, wait_fixed

MAX_ATTEMPTS = 4
BACKOFF_SECONDS = 2

@retry(stop=stop_after_attempt(MAX_ATTEMPTS), wait=wait_fixed(BACKOFF_SECONDS))
def call_service(session, url):
    return session.get(url, timeout=10)
