// Xlib with the XScreenSaver (idle time) and X-Resource (client pid) extensions, for the X11
// desktop hook only (Debian: libx11-dev, libxss-dev, libxres-dev).
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <X11/extensions/scrnsaver.h>
#include <X11/extensions/XRes.h>
