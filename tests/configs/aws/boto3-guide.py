# The Config object of boto3's "Retries" guide (boto/boto3 docs/source/guide/retries.rst,
# "Defining a retry configuration in a Config object for your boto3 client"), as written there.
import boto3
from botocore.config import Config

config = Config(
   retries = {
      'max_attempts': 10,
      'mode': 'standard'
   }
)

ec2 = boto3.client('ec2', config=config)
