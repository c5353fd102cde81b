"""The embedded models' thread count on shared cores (survey.common.threads.AutoThreads): two threads only
while two cores are free, one as soon as another process takes a core, back to two once it leaves."""

from __future__ import annotations

from survey.common.threads import AutoThreads, available_cores


class Machine:
    """A fake clock, /proc/stat and own CPU time: ``advance(wall, ours, others)`` in core-seconds."""

    def __init__(self, cores: int = 2):
        self.cores, self.t, self.busy, self.idle, self.own = cores, 0.0, 0.0, 0.0, 0.0

    def advance(self, wall: float, ours: float, others: float) -> None:
        self.t += wall
        self.own += ours * wall
        self.busy += (ours + others) * wall
        self.idle += max(0.0, self.cores - ours - others) * wall

    def auto(self, load: float) -> AutoThreads:
        return AutoThreads(2, 5.0, cores=self.cores, load=load, clock=lambda: self.t,
                           stat=lambda: (self.busy, self.idle), own=lambda: self.own)


def test_two_threads_on_two_free_cores_one_on_a_busy_machine():
    assert Machine().auto(load=0.2).threads == 2
    assert Machine().auto(load=0.9).threads == 1
    assert Machine().auto(load=3.0).threads == 1
    assert Machine(cores=1).auto(load=0.0).threads == 1
    assert Machine(cores=8).auto(load=1.0).threads == 2  # at most two: the model is small


def test_another_process_on_a_core_drops_to_one_thread_and_its_leaving_brings_two_back():
    m = Machine()
    auto = m.auto(load=0.1)
    m.advance(2.0, ours=2.0, others=0.0)
    assert auto.revise() is None  # before the interval: not measured yet
    m.advance(4.0, ours=2.0, others=0.0)
    assert auto.revise() is None and auto.threads == 2  # both cores ours: stay
    m.advance(6.0, ours=1.2, others=0.8)  # another process takes a core
    assert auto.revise() == 1 and auto.threads == 1
    m.advance(6.0, ours=1.0, others=0.9)
    assert auto.revise() is None  # still busy: stay at one
    m.advance(6.0, ours=1.0, others=0.0)  # it left: the other core idles
    assert auto.revise() == 2 and auto.switches == 2


def test_without_proc_stat_the_first_choice_stays():
    auto = AutoThreads(2, 0.0, cores=2, load=0.0, stat=lambda: None)
    assert auto.threads == 2 and auto.revise() is None


def test_available_cores_is_positive():
    assert available_cores() >= 1
