import { readFileSync } from "node:fs";
import { homedir, userInfo } from "node:os";

/** Where `~` and `~name` lead for a tool that expands them; injectable so tests need no real users. */
export interface HomeDirs {
  /** The current user's home (`~`). */
  home: string;
  /** The home directory of user `name`, or undefined when there is no such user. */
  userHome(name: string): string | undefined;
}

/**
 * The real answers, as a shell or Python's `expanduser` gives them: `~name` is the home that the
 * user database records for `name` (not a sibling of our own home: `/root`, `/var/lib/postgres`),
 * and a name that is no user is not expanded at all, so a folder called `~old` is just a folder.
 * `/etc/passwd` is read on each lookup (only paths starting with `~name` need one); users known
 * only to a directory service (LDAP) are found when they are the current user.
 */
export function systemHomeDirs(): HomeDirs {
  return { home: homedir(), userHome: passwdHome };
}

function passwdHome(name: string): string | undefined {
  try {
    const me = userInfo();
    if (me.username === name) return me.homedir;
  } catch {
    // no user record for this process (some containers): the passwd file may still know `name`
  }
  let passwd: string;
  try {
    passwd = readFileSync("/etc/passwd", "utf8");
  } catch {
    return undefined;
  }
  for (const line of passwd.split("\n")) {
    const fields = line.split(":");
    if (fields[0] === name && fields.length >= 7) return fields[5] || undefined;
  }
  return undefined;
}
