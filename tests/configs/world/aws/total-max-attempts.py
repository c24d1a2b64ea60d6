import boto3
from botocore.config import Config

RETRIES = Config(retries={"total_max_attempts": 4, "mode": "standard"})
s3 = boto3.client("s3", config=RETRIES)
