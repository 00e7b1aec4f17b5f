import os
import sys

def main():
    print(os.getcwd(), sys.argv)
    return 0
