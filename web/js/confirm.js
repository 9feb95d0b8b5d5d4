// The confirm dialog every action goes through: a title, a body (may hold inputs), and
// an action run on Confirm; its error is shown in the dialog, which stays open.
const dialog = () => document.getElementById('confirm');

/** Opens the dialog; resolves with the action's result, or null when cancelled. */
export function confirmAction({ title, body = [], confirm = 'Confirm', action }) {
  const d = dialog();
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-body').replaceChildren(...[body].flat());
  const error = document.getElementById('confirm-error');
  error.textContent = '';
  const yes = document.getElementById('confirm-yes');
  const no = document.getElementById('confirm-no');
  yes.textContent = confirm;
  return new Promise((resolve) => {
    const finish = (value) => {
      yes.onclick = null;
      no.onclick = null;
      d.onclose = null;
      if (d.open) d.close();
      resolve(value);
    };
    no.onclick = () => finish(null);
    d.onclose = () => finish(null);
    yes.onclick = async (event) => {
      event.preventDefault();
      yes.disabled = true;
      try {
        finish(await action());
      } catch (e) {
        error.textContent = e.message;
      } finally {
        yes.disabled = false;
      }
    };
    d.showModal();
  });
}
