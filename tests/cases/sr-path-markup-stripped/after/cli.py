import argparse
import logging

from runner import run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    run(args.path, verbose=args.verbose)
