package dev.racelab.classroom;

import dev.racelab.engine.lab.Lab;

import java.util.List;

/**
 * A class's run over everyone's seats, as the host runs it ({@link HostedExperiment}) or a
 * participant's window copies it ({@link ClassMirror}): a lane per participant's worker, named
 * {@code name · client-1}, as many as the seats hold.
 */
abstract class SeatedExperiment extends ClassExperiment {

    final List<ClassPlan.Seat> seats;

    SeatedExperiment(Lab lab, List<ClassPlan.Seat> seats) {
        super(lab);
        this.seats = List.copyOf(seats);
    }

    /** The lane of worker {@code index}: its participant's name and that worker's. */
    @Override
    public String workerName(int index) {
        ClassPlan.Seat seat = ClassPlan.seatAt(seats, index);
        return seat == null ? lab.workerName(index) : seat.name() + " · " + lab.workerName(index - seat.first());
    }

    @Override
    public int minWorkers() {
        return 1;
    }

    @Override
    public int maxWorkers() {
        return Math.max(lab.maxWorkers(), ClassPlan.workers(seats));
    }
}
