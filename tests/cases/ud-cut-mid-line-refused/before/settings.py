import os
TIMEOUT = 30
RETRIES = 2
