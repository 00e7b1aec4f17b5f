import os
import sys


def main():
    print(os.getcwd())
    return 0
