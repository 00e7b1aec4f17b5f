import os
from src.helpers import greeting

def main():
    print(greeting('world'))

if __name__ == '__main__':
    main()
