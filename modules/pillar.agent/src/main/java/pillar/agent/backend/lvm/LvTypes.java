package pillar.agent.backend.lvm;

import java.util.Map;

/** What {@code lv_attr}'s first character (the volume type, lvs(8)) says an LV is, in words for a message. */
final class LvTypes {
    /** A plain LV: linear or striped. */
    static final char PLAIN = '-';
    /** A thin LV, in a thin pool. */
    static final char THIN = 'V';

    private static final Map<Character, String> WORDS = Map.ofEntries(
            Map.entry(PLAIN, "a linear LV"),
            Map.entry(THIN, "a thin LV"),
            Map.entry('t', "a thin pool"),
            Map.entry('T', "a thin pool's data"),
            Map.entry('e', "RAID or pool metadata"),
            Map.entry('s', "a snapshot (lvcreate -s of a linear LV)"),
            Map.entry('S', "a merging snapshot"),
            Map.entry('o', "the origin of snapshots"),
            Map.entry('O', "the origin of a merging snapshot"),
            Map.entry('r', "a RAID LV"),
            Map.entry('R', "a RAID LV"),
            Map.entry('m', "a mirrored LV"),
            Map.entry('M', "a mirrored LV"),
            Map.entry('C', "a cached LV"),
            Map.entry('i', "a mirror or RAID image"),
            Map.entry('I', "a mirror or RAID image"),
            Map.entry('l', "a mirror log"),
            Map.entry('p', "a pvmove"),
            Map.entry('v', "a virtual LV"),
            Map.entry('c', "an LV under conversion"),
            Map.entry('d', "a VDO pool"),
            Map.entry('D', "a VDO pool's data"));

    private LvTypes() {
    }

    /** The LV in words: its type, and the thin pool of a thin one. */
    static String describe(LvmReport.Lv lv) {
        String type = WORDS.getOrDefault(lv.type(), "an LV of type '" + lv.type() + "'");
        return type + (lv.pool().isEmpty() ? "" : " of thin pool " + lv.pool()) + " (lv_attr " + lv.attr() + ")";
    }
}
