import tenacity
from tenacity import retry, stop_after_attempt, wait_fixed

db_retry = retry(stop=stop_after_attempt(5), wait=wait_fixed(0.5), reraise=True)

@db_retry
def fetch_rows(cursor):
    return cursor.fetchall()
