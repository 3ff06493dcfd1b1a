/** The project folder loadout keeps plugin copies in; a leaf module, so readers need not load the install planner. */
export const PROJECT_DIR = '.loadout'
