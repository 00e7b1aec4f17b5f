import os
import sys

print(os.name)
