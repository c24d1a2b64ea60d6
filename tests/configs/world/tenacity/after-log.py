import logging
from tenacity import after_log, retry, stop_after_attempt, wait_fixed

logger = logging.getLogger(__name__)

@retry(stop=stop_after_attempt(3), wait=wait_fixed(0.2), after=after_log(logger, logging.WARNING))
def send(message):
    ...
