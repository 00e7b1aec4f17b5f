def slugify(text):
    return text.strip().lower().replace(" ", "-")


def title(text):
    return text.title()
