def slugify(text):
    return "-".join(text.strip().lower().split())


def title(text):
    return text.strip().title()
