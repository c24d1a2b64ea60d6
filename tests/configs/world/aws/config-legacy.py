import boto3
from botocore.config import Config

sqs = boto3.client("sqs", config=Config(retries={"mode": "legacy"}))
