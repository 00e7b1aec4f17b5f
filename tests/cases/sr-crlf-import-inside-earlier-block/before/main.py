import os

def main():
    print(os.getcwd())
    return 0
