// Setup of the unit tier (vitest project `unit`): its tests are pure, so opening a test database there
// is a mistake that would make the inner loop slow again. `openTestDatabase` refuses under this flag
// with a message that says where such a test belongs (`packages/<name>/test/`).
process.env['TOLLGATE_TEST_TIER'] = 'unit';
