import time


class Session:
    def __init__(self, user):
        self.user = user
        self.timeout = 60
        self.created = time.time()

    # a session expires after `timeout` seconds of inactivity
    def expired(self):
        return time.time() - self.created > self.timeout

    def refresh(self):
        self.created = time.time()
        return self

    def user_name(self):
        return self.user.name


class AdminSession(Session):
    def __init__(self, user):
        super().__init__(user)
        self.timeout = 5

    def refresh(self):
        raise PermissionError("admins log in again")
