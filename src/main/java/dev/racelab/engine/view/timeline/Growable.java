package dev.racelab.engine.view.timeline;

import java.util.Arrays;

/**
 * Primitive arrays that grow at their end, so a million segments cost no boxing; a lane folded to
 * pixel columns also replaces and removes its last values. Owned by the thread that feeds the lane
 * (the FX thread for the window's).
 */
public final class Growable {

    private Growable() {
    }

    public static final class Longs {
        private long[] values = new long[16];
        private int size;

        void add(long value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        public long get(int i) {
            return values[i];
        }

        void set(int i, long value) {
            values[i] = value;
        }

        public int size() {
            return size;
        }

        public long last() {
            return values[size - 1];
        }

        void removeLast() {
            size--;
        }

        /** The backing array, valid up to {@link #size()}, for tight loops; do not keep it across appends. */
        public long[] raw() {
            return values;
        }

        /**
         * Index of the first value from {@code from} on at or past {@code edge} (past it, if {@code
         * past}), or {@link #size()}; values ascending. A few values are looked at one by one, then
         * the search gallops: finding the next column's first of many costs a few steps. A time
         * compared with a double this way may be off by rounding within a nanosecond of the edge;
         * callers that reckon columns to the bit settle those few themselves.
         */
        public int firstReaching(int from, double edge, boolean past) {
            int i = from;
            int near = Math.min(size, from + 8);
            while (i < near && before(values[i], edge, past)) {
                i++;
            }
            if (i < near || i >= size || !before(values[i], edge, past)) {
                return i;
            }
            int low = i;
            int step = 1;
            int high;
            while (true) {
                high = low + step;
                if (high >= size) {
                    high = size;
                    break;
                }
                if (!before(values[high], edge, past)) {
                    break;
                }
                low = high;
                step <<= 1;
            }
            // values[low] is before the edge; values[high] (or the end) is not.
            while (high - low > 1) {
                int mid = (low + high) >>> 1;
                if (before(values[mid], edge, past)) {
                    low = mid;
                } else {
                    high = mid;
                }
            }
            return high;
        }

        private static boolean before(long value, double edge, boolean past) {
            return past ? value <= edge : value < edge;
        }

        /** Index of the last value ≤ {@code key} (values ascending), or -1. */
        public int floor(long key) {
            int low = 0;
            int high = size - 1;
            int found = -1;
            while (low <= high) {
                int mid = (low + high) >>> 1;
                if (values[mid] <= key) {
                    found = mid;
                    low = mid + 1;
                } else {
                    high = mid - 1;
                }
            }
            return found;
        }
    }

    public static final class Bytes {
        private byte[] values = new byte[16];
        private int size;

        void add(int value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = (byte) value;
        }

        public int get(int i) {
            return values[i];
        }

        void set(int i, int value) {
            values[i] = (byte) value;
        }

        void removeLast() {
            size--;
        }

        public int size() {
            return size;
        }

        /** The backing array, valid up to {@link #size()}, for tight loops; do not keep it across appends. */
        public byte[] raw() {
            return values;
        }
    }

    public static final class Ints {
        private int[] values = new int[16];
        private int size;

        void add(int value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        public int get(int i) {
            return values[i];
        }

        void set(int i, int value) {
            values[i] = value;
        }

        public int size() {
            return size;
        }
    }

    public static final class Strings {
        private String[] values = new String[16];
        private int size;

        void add(String value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        public String get(int i) {
            return values[i];
        }

        void set(int i, String value) {
            values[i] = value;
        }

        void removeLast() {
            values[--size] = null;
        }

        public int size() {
            return size;
        }
    }
}
