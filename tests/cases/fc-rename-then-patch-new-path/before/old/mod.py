import os
import sys

LIMIT = 10


def f():
    return LIMIT


def g():
    return os.sep + sys.platform
