// SPDX-License-Identifier: MIT
// pam_plattack.c - a rogue PAM module's shape (the credential-stealing
// module of public write-ups), harmless: every entry point returns
// PAM_IGNORE (25) and touches nothing. No PAM headers needed.
#define PAM_IGNORE 25

int pam_sm_authenticate(void *pamh, int flags, int argc, const char **argv)
{
	(void)pamh; (void)flags; (void)argc; (void)argv;
	return PAM_IGNORE;
}

int pam_sm_setcred(void *pamh, int flags, int argc, const char **argv)
{
	(void)pamh; (void)flags; (void)argc; (void)argv;
	return PAM_IGNORE;
}

int pam_sm_acct_mgmt(void *pamh, int flags, int argc, const char **argv)
{
	(void)pamh; (void)flags; (void)argc; (void)argv;
	return PAM_IGNORE;
}
