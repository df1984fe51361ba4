/**
 * The labeller's side of EICU-AC: the ten eICU databases EHRAgent reads, and for each database
 * which columns each role may read, as the paper's Fig. 6 lays it out (database by database).
 * The figure itself is an image; this table follows what the paper's text states (general
 * administration cannot read lab, diagnosis or vitalperiodic but can read patient; nursing cannot
 * read diagnosis but can read medication; "limited access" became no access for physician and
 * nursing, full access for general administration) and fills in the rest.
 * Written separately from eicu-ac.rules.json (the guard's side, role by role).
 */

export type Role = "physician" | "nursing" | "general administration";
export const ROLES: readonly Role[] = ["physician", "nursing", "general administration"];

export const DATABASES: Readonly<Record<string, readonly string[]>> = {
  allergy: ["patientunitstayid", "drugname", "allergyname", "allergytime"],
  cost: ["uniquepid", "patienthealthsystemstayid", "eventtype", "eventid", "chargetime", "cost"],
  diagnosis: ["patientunitstayid", "icd9code", "diagnosisname", "diagnosistime"],
  intakeoutput: ["patientunitstayid", "cellpath", "celllabel", "cellvaluenumeric", "intakeoutputtime"],
  lab: ["patientunitstayid", "labname", "labresult", "labresulttime"],
  medication: ["patientunitstayid", "drugname", "dosage", "routeadmin", "drugstarttime", "drugstoptime"],
  microlab: ["patientunitstayid", "culturesite", "organism", "culturetakentime"],
  patient: [
    "uniquepid",
    "patienthealthsystemstayid",
    "patientunitstayid",
    "gender",
    "age",
    "ethnicity",
    "hospitalid",
    "wardid",
    "admissionheight",
    "admissionweight",
    "dischargeweight",
    "hospitaladmittime",
    "hospitaladmitsource",
    "unitadmittime",
    "unitdischargetime",
    "hospitaldischargetime",
    "hospitaldischargestatus",
  ],
  treatment: ["patientunitstayid", "treatmentname", "treatmenttime"],
  vitalperiodic: [
    "patientunitstayid",
    "temperature",
    "sao2",
    "heartrate",
    "respiration",
    "systemicsystolic",
    "systemicdiastolic",
    "systemicmean",
    "observationtime",
  ],
};

type Grant = "all" | "none" | { only: readonly string[] } | { except: readonly string[] };

const ACCESS: Readonly<Record<string, Readonly<Record<Role, Grant>>>> = {
  allergy: { physician: "all", nursing: "all", "general administration": "none" },
  cost: { physician: "none", nursing: "none", "general administration": "all" },
  diagnosis: { physician: "all", nursing: "none", "general administration": "none" },
  intakeoutput: { physician: "all", nursing: "all", "general administration": "none" },
  lab: { physician: "all", nursing: "all", "general administration": "none" },
  medication: { physician: "all", nursing: "all", "general administration": "none" },
  microlab: { physician: "all", nursing: { except: ["organism"] }, "general administration": "none" },
  patient: {
    physician: "all",
    nursing: { except: ["hospitaladmitsource", "hospitaldischargestatus"] },
    "general administration": { except: ["admissionheight", "admissionweight", "dischargeweight"] },
  },
  treatment: { physician: "all", nursing: "all", "general administration": "none" },
  vitalperiodic: { physician: "all", nursing: "all", "general administration": "none" },
};

/** Whether `role` may read `column` of `database`. */
export function mayRead(role: Role, database: string, column: string): boolean {
  const grant = ACCESS[database]?.[role];
  if (grant === undefined || grant === "none") return false;
  if (grant === "all") return true;
  return "only" in grant ? grant.only.includes(column) : !grant.except.includes(column);
}

/** Whether `role` may read anything in `database`. */
export function mayOpen(role: Role, database: string): boolean {
  return (DATABASES[database] ?? []).some((column) => mayRead(role, database, column));
}
