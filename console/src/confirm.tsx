import type { ComponentChildren } from 'preact';

/**
 * A question asked in the page before anything that changes data elsewhere: what will happen,
 * the button that does it (in the danger colour), and Cancel.
 */
export function Confirm({
  label,
  action,
  onConfirm,
  onCancel,
  children,
}: {
  label: string;
  action: ComponentChildren;
  onConfirm: () => void;
  onCancel: () => void;
  children: ComponentChildren;
}) {
  return (
    <div class="confirm" role="alertdialog" aria-label={label}>
      <p>{children}</p>
      <button type="button" class="danger" onClick={onConfirm}>
        {action}
      </button>{' '}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
