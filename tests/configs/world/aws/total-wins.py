from botocore.config import Config

config = Config(retries={"max_attempts": 4, "total_max_attempts": 3, "mode": "standard"})
