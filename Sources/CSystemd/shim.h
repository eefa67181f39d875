// libsystemd, for ScreenTimeLinux only: sd-bus (logind, notifications), sd-daemon (sd_notify),
// sd-journal (sd_journal_sendv). Swift wraps each call once, in ScreenTimeLinux.
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
