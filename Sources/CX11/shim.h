// Xlib with the XScreenSaver (idle time), X-Resource (client pid) and XInput 2 (which device an
// input came from: XTEST is left out) extensions, for the X11 desktop hook only (Debian:
// libx11-dev, libxss-dev, libxres-dev, libxi-dev).
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <X11/extensions/scrnsaver.h>
#include <X11/extensions/XRes.h>
#include <X11/extensions/XInput2.h>
