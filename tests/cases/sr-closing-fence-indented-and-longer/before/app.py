from utils import slugify


def main(name):
    print(slugify(name))
