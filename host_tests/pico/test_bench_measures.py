"""tools/bench_pico.py's latency measures on made-up runs (no Pico booted): what a host
stimulus is measured to, when stimuli share an instant."""
import bench_pico as B

MS = 1000000                            # ns


class _Run:
    def __init__(self, stimuli, writes):
        self.stimuli = stimuli
        self.writes = writes


def test_a_fingers_contact_bounce_is_not_measured_as_a_press_end():
    # a finger's bounce at 0 ms (press, release, press in one instant: the order it was
    # made in), held, released at 174 ms; the banker display (8) written at 163 ms for
    # something else, the acting seat's (2) at 190 and 200 ms for the press
    stimuli = [(0, "press", 1), (0, "release", 1), (0, "press", 1),
               (174 * MS, "release", 1), (400 * MS, "card", 0)]
    writes = {8: [163 * MS], 2: [190 * MS, 200 * MS]}
    got = B.press_latencies(_Run(stimuli, writes), [])
    assert got == [26.0]                # the release at 174 ms to its display's last byte
    assert B.latencies(_Run(stimuli, writes), ("release",)) == [26.0]


def test_stimuli_out_of_their_order_are_put_in_time_order():
    st = [(5, "release", 0), (1, "card", 3), (5, "press", 0), (3, "press", 0)]
    assert B.in_order(st) == [(1, "card", 3), (3, "press", 0), (5, "release", 0),
                              (5, "press", 0)]
