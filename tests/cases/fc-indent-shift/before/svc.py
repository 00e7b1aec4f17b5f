class Service:
    def handle(user):
        return user.name
