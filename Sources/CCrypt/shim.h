// libcrypt (libxcrypt): crypt_r, for the parent passphrase (yescrypt, as in /etc/shadow).
#include <crypt.h>
