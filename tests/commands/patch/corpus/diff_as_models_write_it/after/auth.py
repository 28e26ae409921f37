import time


class Session:
    def __init__(self, user):
        self.user = user
        self.roles = []
        self.timeout = 30
        self.created = time.time()

    def expired(self):
        return time.time() - self.created > self.timeout

    def refresh(self):
        self.created = time.time()
        return self


class AdminSession(Session):
    def __init__(self, user):
        super().__init__(user)
        self.timeout = 15

    def refresh(self):
        raise PermissionError("admins log in again")
