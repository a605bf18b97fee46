# The Raspberry Pi Pico W: the Pico's wiring (boards/pico.py, deployed beside this file as
# pico.mpy; `make deploy BOARD=pico_w`) plus its Wi-Fi. With `wifi = NAME` in settings.txt
# it joins that network (DHCP; the address shows on the banker's display and the serial
# line once known, and http://pontoon.local/ works where the phone speaks mDNS); without,
# it opens its own access point `ap_name` (open, or WPA2 with `ap_password`) at
# http://192.168.4.1/. Joining never blocks the table: the radio connects in the
# background while the table plays.
from pico import *  # noqa: F401,F403 - the same pins, displays, reader and buttons

HOSTNAME = "pontoon"
AP_ADDRESS = "192.168.4.1"


class Network:
    """What the controller needs of the network: where to bind, and where players go."""

    def __init__(self, wlan, port, station):
        self.wlan = wlan
        self.host = "0.0.0.0"
        self.port = port
        self.station = station

    def where(self):
        tail = "" if self.port == 80 else ":%d" % self.port
        if not self.station:
            return "http://%s%s/" % (AP_ADDRESS, tail)
        if not self.wlan.isconnected():
            return "joining Wi-Fi (status %d)" % self.wlan.status()
        return "http://%s%s/" % (self.wlan.ifconfig()[0], tail)


def make_network(settings):
    import network
    try:
        network.hostname(HOSTNAME)
    except (AttributeError, ValueError, OSError):
        pass
    if settings.wifi:
        wlan = network.WLAN(network.STA_IF)
        wlan.active(True)
        wlan.connect(settings.wifi, settings.wifi_password)   # returns at once
        return Network(wlan, settings.web_port, True)
    ap = network.WLAN(network.AP_IF)
    if settings.ap_password:
        ap.config(essid=settings.ap_name, password=settings.ap_password)
    else:
        ap.config(essid=settings.ap_name, security=0)
    ap.active(True)
    return Network(ap, settings.web_port, False)

