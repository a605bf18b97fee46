# The simulated board with a network: boards/sim.py plus a loopback "Wi-Fi" (the Pico W's
# role in the tests). The web server binds 127.0.0.1 on settings.txt's web_port (the tests
# choose a free port at run time).
from boards.sim import *  # noqa: F401,F403 - the same simulated chips


class Network:
    def __init__(self, port):
        self.host = "127.0.0.1"
        self.port = port

    def where(self):
        return "http://127.0.0.1:%d/" % self.port


def make_network(settings):
    return Network(settings.web_port)
