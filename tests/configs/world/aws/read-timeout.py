import boto3
from botocore.config import Config

config = Config(connect_timeout=2, read_timeout=5, retries={"max_attempts": 2, "mode": "standard"})
dynamodb = boto3.resource("dynamodb", config=config)
