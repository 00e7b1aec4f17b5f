from util import f
