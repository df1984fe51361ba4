"use strict";
// Stands in for better-sqlite3 in this repository only (package.json "overrides"), so one lockfile
// gives every supported Node the driver the README prescribes for it:
// - 13.x where Node-API 10 exists (Node 22.14+, 24): 12.x compiled against Node 24.19+ headers
//   aborts in a garbage collection (`Assertion failed: (env) != nullptr` in ~Statement), and 13
//   no longer uses node::ObjectWrap;
// - 12.x on Node 20, where 13 cannot load (it needs Node-API 10).
module.exports = Number(process.versions.napi) >= 10 ? require("better-sqlite3-13") : require("better-sqlite3-12");
