// The devices ticked in the table: the selection bar, the faults panel's "Selected in the table",
// the map's highlight and the detail dialog's delete all share this one set.
export const selected = new Set();
