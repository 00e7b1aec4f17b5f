import os
TIMEOUT = 300
