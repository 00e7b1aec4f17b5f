import os
TIMEOUT = 30
