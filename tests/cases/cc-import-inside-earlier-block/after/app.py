import json
import os
import sys


def main():
    print(json.dumps(os.getcwd()))
    return 0
