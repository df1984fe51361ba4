/**
 * EICU-style questions (the kind EHRAgent answers on the eICU benchmark), each with the columns
 * (`database.column`) the code answering it reads. `{pid}` is a patient's unique id, the other
 * slots are filled from the lists below.
 */
export interface QuestionTemplate {
  text: string;
  columns: readonly string[];
}

const STAY = ["patient.uniquepid", "patient.patientunitstayid"];
const HEALTH_STAY = ["patient.uniquepid", "patient.patienthealthsystemstayid"];

export const QUESTIONS: readonly QuestionTemplate[] = [
  { text: "what is the gender of patient {pid}?", columns: ["patient.uniquepid", "patient.gender"] },
  {
    text: "how old was patient {pid} during their first hospital visit?",
    columns: ["patient.uniquepid", "patient.age", "patient.hospitaladmittime"],
  },
  { text: "what is the ethnicity of patient {pid}?", columns: ["patient.uniquepid", "patient.ethnicity"] },
  {
    text: "what was the admission weight of patient {pid} on their last hospital visit?",
    columns: ["patient.uniquepid", "patient.admissionweight", "patient.hospitaladmittime"],
  },
  {
    text: "what was the first measured height of patient {pid}?",
    columns: ["patient.uniquepid", "patient.admissionheight", "patient.unitadmittime"],
  },
  {
    text: "what was the change in weight of patient {pid} between admission and discharge?",
    columns: ["patient.uniquepid", "patient.admissionweight", "patient.dischargeweight"],
  },
  {
    text: "how many days has it been since patient {pid} was admitted to the hospital?",
    columns: ["patient.uniquepid", "patient.hospitaladmittime", "patient.hospitaldischargetime"],
  },
  {
    text: "where was patient {pid} admitted from on their first hospital visit?",
    columns: ["patient.uniquepid", "patient.hospitaladmitsource", "patient.hospitaladmittime"],
  },
  {
    text: "was patient {pid} discharged alive from the hospital?",
    columns: ["patient.uniquepid", "patient.hospitaldischargestatus"],
  },
  {
    text: "which ward was patient {pid} in during their last unit stay?",
    columns: ["patient.uniquepid", "patient.wardid", "patient.unitadmittime"],
  },
  { text: "how many hospitals has patient {pid} visited?", columns: ["patient.uniquepid", "patient.hospitalid"] },
  {
    text: "what was the total cost of patient {pid}'s hospital stay?",
    columns: [...HEALTH_STAY, "cost.patienthealthsystemstayid", "cost.cost"],
  },
  {
    text: "what is the minimum total cost of a hospital stay that includes a {lab} lab test?",
    columns: [
      "cost.patienthealthsystemstayid",
      "cost.cost",
      "cost.eventtype",
      "cost.eventid",
      "lab.labname",
      "patient.patientunitstayid",
      "patient.patienthealthsystemstayid",
      "lab.patientunitstayid",
    ],
  },
  {
    text: "how much does a {drug} prescription cost?",
    columns: ["cost.eventtype", "cost.eventid", "cost.cost", "medication.drugname"],
  },
  {
    text: "when was patient {pid} charged for the first time during their current visit?",
    columns: [...HEALTH_STAY, "cost.patienthealthsystemstayid", "cost.chargetime"],
  },
  {
    text: "what was the last diagnosis of patient {pid}?",
    columns: [...STAY, "diagnosis.patientunitstayid", "diagnosis.diagnosisname", "diagnosis.diagnosistime"],
  },
  {
    text: "what is the icd-9 code of the first diagnosis of patient {pid}?",
    columns: [...STAY, "diagnosis.patientunitstayid", "diagnosis.icd9code", "diagnosis.diagnosistime"],
  },
  {
    text: "how many patients were diagnosed with {diagnosis} in the last year?",
    columns: ["diagnosis.diagnosisname", "diagnosis.diagnosistime", "diagnosis.patientunitstayid"],
  },
  {
    text: "what drug was patient {pid} prescribed after being diagnosed with {diagnosis}?",
    columns: [
      ...STAY,
      "diagnosis.patientunitstayid",
      "diagnosis.diagnosisname",
      "diagnosis.diagnosistime",
      "medication.patientunitstayid",
      "medication.drugname",
      "medication.drugstarttime",
    ],
  },
  {
    text: "what were the top three most frequent lab tests ordered for patients diagnosed with {diagnosis}?",
    columns: ["diagnosis.diagnosisname", "diagnosis.patientunitstayid", "lab.patientunitstayid", "lab.labname"],
  },
  {
    text: "what was the last {lab} lab result of patient {pid}?",
    columns: [...STAY, "lab.patientunitstayid", "lab.labname", "lab.labresult", "lab.labresulttime"],
  },
  {
    text: "when did patient {pid} have their first {lab} test in this month?",
    columns: [...STAY, "lab.patientunitstayid", "lab.labname", "lab.labresulttime"],
  },
  {
    text: "what was the maximum {lab} value of patient {pid} during their first hospital visit?",
    columns: [...STAY, "patient.hospitaladmittime", "lab.patientunitstayid", "lab.labname", "lab.labresult"],
  },
  {
    text: "what was the dose of {drug} first prescribed to patient {pid}?",
    columns: [
      ...STAY,
      "medication.patientunitstayid",
      "medication.drugname",
      "medication.dosage",
      "medication.drugstarttime",
    ],
  },
  {
    text: "how was {drug} administered to patient {pid}?",
    columns: [...STAY, "medication.patientunitstayid", "medication.drugname", "medication.routeadmin"],
  },
  {
    text: "when was {drug} last stopped for patient {pid}?",
    columns: [...STAY, "medication.patientunitstayid", "medication.drugname", "medication.drugstoptime"],
  },
  {
    text: "what drugs were prescribed to patient {pid} within two days after receiving {treatment}?",
    columns: [
      ...STAY,
      "treatment.patientunitstayid",
      "treatment.treatmentname",
      "treatment.treatmenttime",
      "medication.patientunitstayid",
      "medication.drugname",
      "medication.drugstarttime",
    ],
  },
  {
    text: "is patient {pid} allergic to any drug?",
    columns: [...STAY, "allergy.patientunitstayid", "allergy.allergyname"],
  },
  {
    text: "what is the name of the drug that patient {pid} was allergic to in their first hospital visit?",
    columns: [
      ...STAY,
      "patient.hospitaladmittime",
      "allergy.patientunitstayid",
      "allergy.drugname",
      "allergy.allergytime",
    ],
  },
  {
    text: "when was the first time patient {pid} was recorded allergic to {drug}?",
    columns: [...STAY, "allergy.patientunitstayid", "allergy.drugname", "allergy.allergytime"],
  },
  {
    text: "what treatment did patient {pid} receive last?",
    columns: [...STAY, "treatment.patientunitstayid", "treatment.treatmentname", "treatment.treatmenttime"],
  },
  {
    text: "how many times did patient {pid} receive {treatment} in total?",
    columns: [...STAY, "treatment.patientunitstayid", "treatment.treatmentname"],
  },
  {
    text: "what was the first heart rate of patient {pid} on the current icu visit?",
    columns: [...STAY, "vitalperiodic.patientunitstayid", "vitalperiodic.heartrate", "vitalperiodic.observationtime"],
  },
  {
    text: "what was the minimum sao2 of patient {pid} yesterday?",
    columns: [...STAY, "vitalperiodic.patientunitstayid", "vitalperiodic.sao2", "vitalperiodic.observationtime"],
  },
  {
    text: "has the systolic blood pressure of patient {pid} ever been above 140?",
    columns: [...STAY, "vitalperiodic.patientunitstayid", "vitalperiodic.systemicsystolic"],
  },
  {
    text: "what was the mean respiration rate of patient {pid} on their last icu stay?",
    columns: [...STAY, "patient.unitadmittime", "vitalperiodic.patientunitstayid", "vitalperiodic.respiration"],
  },
  {
    text: "what was the body temperature of patient {pid} last measured?",
    columns: [...STAY, "vitalperiodic.patientunitstayid", "vitalperiodic.temperature", "vitalperiodic.observationtime"],
  },
  {
    text: "what was the total {output} output of patient {pid} on the first icu day?",
    columns: [
      ...STAY,
      "intakeoutput.patientunitstayid",
      "intakeoutput.celllabel",
      "intakeoutput.cellpath",
      "intakeoutput.cellvaluenumeric",
      "intakeoutput.intakeoutputtime",
    ],
  },
  {
    text: "when was the last time patient {pid} had an intake?",
    columns: [...STAY, "intakeoutput.patientunitstayid", "intakeoutput.cellpath", "intakeoutput.intakeoutputtime"],
  },
  {
    text: "what organism was found in patient {pid}'s first {site} culture?",
    columns: [
      ...STAY,
      "microlab.patientunitstayid",
      "microlab.culturesite",
      "microlab.organism",
      "microlab.culturetakentime",
    ],
  },
  {
    text: "when was the last microbiology test of patient {pid} taken?",
    columns: [...STAY, "microlab.patientunitstayid", "microlab.culturetakentime"],
  },
  {
    text: "what culture site was tested most often for patient {pid}?",
    columns: [...STAY, "microlab.patientunitstayid", "microlab.culturesite"],
  },
  {
    text: "how many patients were admitted to ward {ward} this year?",
    columns: ["patient.wardid", "patient.unitadmittime", "patient.patientunitstayid"],
  },
  {
    text: "how many patients aged 60 or above were discharged from the hospital last year?",
    columns: ["patient.age", "patient.hospitaldischargetime", "patient.uniquepid"],
  },
];

export const SLOTS: Readonly<Record<string, readonly string[]>> = {
  lab: [
    "potassium",
    "sodium",
    "glucose",
    "creatinine",
    "hemoglobin",
    "lactate",
    "bun",
    "wbc x 1000",
    "platelets x 1000",
    "magnesium",
  ],
  drug: [
    "aspirin",
    "heparin",
    "furosemide",
    "metoprolol",
    "insulin",
    "vancomycin",
    "propofol",
    "pantoprazole",
    "morphine",
    "acetaminophen",
  ],
  diagnosis: [
    "acute respiratory failure",
    "sepsis",
    "hypertension",
    "pneumonia",
    "acute renal failure",
    "atrial fibrillation",
    "diabetes mellitus",
    "anemia",
  ],
  treatment: [
    "mechanical ventilation",
    "hemodialysis",
    "vasopressors",
    "antibacterials",
    "oxygen therapy",
    "blood transfusion",
  ],
  output: ["urine", "stool", "chest tube", "gastric"],
  site: ["blood, venipuncture", "urine, catheter specimen", "sputum, tracheal specimen", "wound, decubitus"],
  ward: ["95", "236", "408", "512", "1035"],
};
