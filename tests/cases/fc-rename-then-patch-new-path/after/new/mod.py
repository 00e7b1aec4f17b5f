import os
import sys

LIMIT = 20


def f():
    return LIMIT * 2


def g():
    return os.sep + sys.platform
