/* kernels.user against the session's uid and the daemon's: off refuses
 * everyone; on admits everyone; auto admits everyone where the daemon is
 * root (each worker then runs as its user) and otherwise only the daemon's
 * own uid, whose kernels would run as the worker's uid anyway. A kernel
 * that takes over its worker acts as the worker's uid, so a daemon that
 * cannot change uid must not run another user's kernels by default. */
#include <unistd.h>

#include "daemon/config.h"
#include "daemon/server.h"
#include "daemon/session.h"
#include "daemon/user.h"
#include "test.h"

int main(void)
{
    static tsr__config cfg;
    static tsr__server server;
    static tsr__session mine, theirs;
    server.config = &cfg;
    uid_t self = geteuid();
    mine = (tsr__session){.server = &server, .uid = self};
    theirs = (tsr__session){.server = &server, .uid = self == 0 ? 1000 : self + 1};
    bool root = self == 0;

    cfg.v[TSR__CONF_USER_KERNELS].number = 0;
    ASSERT_FALSE(tsr__user_kernels_allowed(&mine));
    ASSERT_FALSE(tsr__user_kernels_allowed(&theirs));
    cfg.v[TSR__CONF_USER_KERNELS].number = 1;
    ASSERT_TRUE(tsr__user_kernels_allowed(&mine));
    ASSERT_TRUE(tsr__user_kernels_allowed(&theirs));
    cfg.v[TSR__CONF_USER_KERNELS].number = TSR__USER_KERNELS_AUTO;
    ASSERT_TRUE(tsr__user_kernels_allowed(&mine));
    ASSERT_EQ(tsr__user_kernels_allowed(&theirs), root);
    TEST_DONE();
}
