class Service:
    def handle(user):
        if user is None:
            return ""

        return user.name
