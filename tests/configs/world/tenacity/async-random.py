import httpx
from tenacity import retry, stop_after_attempt, wait_random

@retry(stop=stop_after_attempt(4), wait=wait_random(1, 3))
async def fetch(url: str) -> bytes:
    async with httpx.AsyncClient() as c:
        r = await c.get(url)
        r.raise_for_status()
        return r.content
