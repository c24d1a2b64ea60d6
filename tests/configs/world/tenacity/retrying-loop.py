from tenacity import Retrying, RetryError, stop_after_attempt, wait_fixed

def publish(client, event):
    for attempt in Retrying(stop=stop_after_attempt(3), wait=wait_fixed(1)):
        with attempt:
            client.send(event)
