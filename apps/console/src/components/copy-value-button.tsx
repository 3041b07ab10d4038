import { ActionIcon, CopyButton, Tooltip } from '@mantine/core';

/** Spec §4 and §9: "Copied" stays for 2 seconds. */
const copiedTimeout = 2000;

type CopyValueButtonProps = {
  value: string;
  /** The button's accessible name and its tooltip before copying, e.g. "Copy key". */
  label: string;
};

/** Copies `value`; the tooltip then says "Copied", held open so keyboard users see it too. Keys and webhook secrets use it. */
export function CopyValueButton({ value, label }: CopyValueButtonProps) {
  return (
    <CopyButton value={value} timeout={copiedTimeout}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : label} opened={copied || undefined} withArrow position="right">
          <ActionIcon
            variant="subtle"
            color={copied ? 'teal' : 'gray'}
            aria-label={label}
            onClick={(event) => {
              // Inside a table row, whose click opens the key.
              event.stopPropagation();
              copy();
            }}
          >
            {copied ? <CheckIcon /> : <CopyIcon />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}

const iconProps = {
  width: 16,
  height: 16,
  viewBox: '0 0 24 24',
  fill: 'none',
  stroke: 'currentColor',
  strokeWidth: 2,
  strokeLinecap: 'round',
  strokeLinejoin: 'round',
  'aria-hidden': true,
} as const;

const CopyIcon = () => (
  <svg {...iconProps}>
    <rect x="8" y="8" width="12" height="12" rx="2" />
    <path d="M16 8V6a2 2 0 0 0-2-2H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h2" />
  </svg>
);

const CheckIcon = () => (
  <svg {...iconProps}>
    <path d="M5 12l5 5L20 7" />
  </svg>
);
