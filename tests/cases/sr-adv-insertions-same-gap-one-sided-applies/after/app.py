import os
import json
import re
import sys

print(os.name)
