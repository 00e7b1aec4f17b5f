from utils import slugify, title


def main(name):
    print(title(name), slugify(name))
